// node:http for the suite's own raw requests (its header-validation scenario), with packc serve's
// bearer header added to each request's options; everything else is node:http itself.
import http from "node:http";
import { withBearerObject } from "./bearer.mjs";

export * from "node:http";

export function request(...args) {
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

export default { ...http, request };
