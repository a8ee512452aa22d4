// Compiled by the schema test into a standalone binary: runs the embedded PostgreSQL migrations on the URL given
// and prints the tags it applied, as JSON.
import { SQL } from "bun";
import { migrate } from "../../../adapters/postgres/db";

const sql = new SQL(process.argv[2], { max: 1 });
console.log(JSON.stringify(await migrate(sql)));
await sql.close();
