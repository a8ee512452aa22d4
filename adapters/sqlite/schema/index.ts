export * from "./accounts";
export * from "./fleet";
export * from "./delivery";
export * from "./audit";
export * from "./trips";
export * from "./tracking";
export * from "./partners";
export * from "./quotes";
