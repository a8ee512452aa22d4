import { cascadeCrashTest } from "./cascade-crash";

cascadeCrashTest("sqlite");
