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
