// Loaded before every test file (bunfig.toml). On a PostgreSQL run (TRIPSWITCH_TEST_DB=postgres) it starts the
// throwaway cluster the harnesses take their databases from, and before each test waits until a few copies are ready
// (a harness takes one synchronously); otherwise it does nothing.
import { beforeEach } from "bun:test";
import { databasesAvailable, ON_POSTGRES, preparePostgres } from "./pg-databases";

if (ON_POSTGRES) {
  await preparePostgres();
  beforeEach(() => databasesAvailable());
}
