export * from "./accounts";
export * from "./fleet";
export * from "./trips";
