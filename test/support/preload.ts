// Loaded before every test file (bunfig.toml). On a PostgreSQL run (TRIPSWITCH_TEST_DB=postgres) it starts the
// throwaway cluster the harnesses take their databases from; otherwise it does nothing.
import { ON_POSTGRES, preparePostgres } from "./pg-databases";

if (ON_POSTGRES) await preparePostgres();
