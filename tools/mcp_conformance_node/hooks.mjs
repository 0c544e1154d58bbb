// Resolve the suite's own imports of "fs" to fs_glob.mjs (see there), and of "undici" and "http"
// to bearer.mjs (the bearer header packc serve --http needs; see there); nothing else is touched.
const fsShim = new URL("./fs_glob.mjs", import.meta.url).href;
const bearer = new URL("./bearer.mjs", import.meta.url);
export async function resolve(specifier, context, next) {
  const fromSuite = context.parentURL && context.parentURL.includes("/@modelcontextprotocol/conformance/");
  if (!fromSuite) return next(specifier, context);
  const bare = specifier.replace(/^node:/, "");
  if (bare === "fs") return { url: fsShim, shortCircuit: true };
  if (bare === "http" || specifier === "undici") {
    const url = new URL(bearer);
    url.searchParams.set("kind", bare);
    if (bare === "undici") url.searchParams.set("real", (await next(specifier, context)).url);
    return { url: url.href, shortCircuit: true };
  }
  return next(specifier, context);
}
