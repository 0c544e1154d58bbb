// node --import this file: installs hooks.mjs (Node >= 20.6).
import { register } from "node:module";
register("./hooks.mjs", import.meta.url);
