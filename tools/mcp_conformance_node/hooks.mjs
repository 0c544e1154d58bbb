// Resolve the suite's own imports of "fs" to fs_glob.mjs (see there), and of "undici" and "http"
// to undici_bearer.mjs and http_bearer.mjs (the bearer header packc serve --http needs); nothing
// else is touched.
const shims = {
  fs: new URL("./fs_glob.mjs", import.meta.url).href,
  http: new URL("./http_bearer.mjs", import.meta.url).href,
};
const undici = new URL("./undici_bearer.mjs", import.meta.url);
export async function resolve(specifier, context, next) {
  const fromSuite = context.parentURL && context.parentURL.includes("/@modelcontextprotocol/conformance/");
  const bare = specifier.replace(/^node:/, "");
  if (fromSuite && bare in shims) {
    return { url: shims[bare], shortCircuit: true };
  }
  if (fromSuite && specifier === "undici") {
    const real = await next(specifier, context);
    const url = new URL(undici);
    url.searchParams.set("real", real.url);
    return { url: url.href, shortCircuit: true };
  }
  return next(specifier, context);
}
