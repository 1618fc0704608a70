/** Premium-finance application commands (README "Premium finance"): create, submit, cancel, sign. */
export {};
