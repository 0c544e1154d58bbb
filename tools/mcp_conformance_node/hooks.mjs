// Resolve the suite's own "fs" imports to fs_glob.mjs (see there); nothing else is touched.
const shim = new URL("./fs_glob.mjs", import.meta.url).href;
export async function resolve(specifier, context, next) {
  if ((specifier === "fs" || specifier === "node:fs") && context.parentURL && context.parentURL.includes("/@modelcontextprotocol/conformance/")) {
    return { url: shim, shortCircuit: true };
  }
  return next(specifier, context);
}
