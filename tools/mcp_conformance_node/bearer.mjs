// packc serve --http refuses every request without "Authorization: Bearer <secret>", and the suite
// has no option for headers. With PACKC_MCP_BEARER set, this adds the header (unless the caller set
// one) to the suite's three ways of sending:
// - fetch (its MCP client): register.mjs wraps globalThis.fetch with withBearer;
// - undici's request (raw requests with chosen Host/Origin headers) and node:http's request (its
//   header-validation scenario): hooks.mjs resolves the suite's "undici" and "http" imports to this
//   module, ?kind=undici&real=<the real undici> or ?kind=http; it exports that module's request
//   with the header added (and, for http, the rest of node:http as the default export).
import http from "node:http";

export function withBearer(headers) {
  const token = process.env.PACKC_MCP_BEARER;
  const out = new Headers(headers ?? undefined);
  if (token && !out.has("authorization")) out.set("authorization", `Bearer ${token}`);
  return out;
}

function withBearerObject(headers) {
  const token = process.env.PACKC_MCP_BEARER;
  const out = { ...(headers ?? {}) };
  if (token && !Object.keys(out).some((name) => name.toLowerCase() === "authorization")) {
    out.Authorization = `Bearer ${token}`;
  }
  return out;
}

const query = new URL(import.meta.url).searchParams;
const undici = query.get("kind") === "undici" ? await import(query.get("real")) : null;

function httpRequest(...args) {
  const [first, second] = args;
  if (typeof first === "object" && !(first instanceof URL)) {
    args[0] = { ...first, headers: withBearerObject(first.headers) };
  } else if (typeof second === "object" && second !== null) {
    args[1] = { ...second, headers: withBearerObject(second.headers) };
  } else {
    args.splice(1, 0, { headers: withBearerObject({}) });
  }
  return http.request(...args);
}

export function request(url, options = {}) {
  if (undici === null) return httpRequest(url, options);
  return undici.request(url, { ...options, headers: Object.fromEntries(withBearer(options.headers).entries()) });
}

export default { ...http, request: httpRequest };
