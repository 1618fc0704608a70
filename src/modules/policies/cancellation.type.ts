// Filled in by its module's change.
export {};
