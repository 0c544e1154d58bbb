// node --import this file: installs hooks.mjs (Node >= 20.6), and, when PACKC_MCP_BEARER is set,
// sends "Authorization: Bearer $PACKC_MCP_BEARER" with every fetch the suite makes (packc serve
// --http refuses requests without its secret; the suite has no option for headers).
import { register } from "node:module";
import { withBearer } from "./bearer.mjs";

register("./hooks.mjs", import.meta.url);
const original = globalThis.fetch;
if (process.env.PACKC_MCP_BEARER && original) {
  globalThis.fetch = (input, init = {}) => {
    const base = init.headers ?? (input instanceof Request ? input.headers : undefined);
    return original(input, { ...init, headers: withBearer(base) });
  };
}
