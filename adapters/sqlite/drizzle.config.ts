import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./adapters/sqlite/schema/index.ts",
  out: "./adapters/sqlite/migrations",
});
