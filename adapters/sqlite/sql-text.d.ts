// SQL migration files are imported as text (Bun's `with { type: "text" }`), so they are embedded in the binary.
declare module "*.sql" {
  const text: string;
  export default text;
}
