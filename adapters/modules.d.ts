// Static assets imported with `with { type: "file" }`: Bun gives their path (embedded in the compiled binary).
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const path: string;
  export default path;
}
declare module "swagger-ui-dist/swagger-ui.css" {
  const path: string;
  export default path;
}
declare module "fxa-common-password-list" {
  const list: { test(password: string): boolean };
  export default list;
}
declare module "topojson-client" {
  export function feature(topology: unknown, object: unknown): unknown;
}
// The console's assets, imported `with { type: "text" }`: their contents.
declare module "*.js" {
  const text: string;
  export default text;
}
declare module "*.css" {
  const text: string;
  export default text;
}
declare module "*.svg" {
  const text: string;
  export default text;
}
