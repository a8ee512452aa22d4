declare module "parse-prometheus-text-format" { const parse: (text: string) => unknown[]; export default parse; }
