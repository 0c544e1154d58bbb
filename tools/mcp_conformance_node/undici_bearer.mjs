// The suite's `import { request } from "undici"` (its raw requests with chosen Host/Origin headers),
// with packc serve's bearer header added; ?real= is the real undici the resolve hook found.
import { withBearer } from "./bearer.mjs";

const real = await import(new URL(import.meta.url).searchParams.get("real"));
export function request(url, options = {}) {
  const headers = Object.fromEntries(withBearer(options.headers).entries());
  return real.request(url, { ...options, headers });
}
