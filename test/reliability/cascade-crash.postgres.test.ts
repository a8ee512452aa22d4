import { cascadeCrashTest } from "./cascade-crash";

cascadeCrashTest("postgres");
