export * from "./accounts";
export * from "./fleet";
