/**
 * The simulated certificate registry, split by concern under registry-simulator/: the registry's operations
 * (simulator.ts), what it refuses on the wire (validation.ts), where it keeps its state (store.ts in memory,
 * db-store.ts in PostgreSQL). Importers use this path.
 */
export { DbSimStore, DEFAULT_SIM_STOCK } from './registry-simulator/db-store.ts';
export { CANCEL_WINDOW_MS, RegistrySimulator, type RegistrySimulatorOptions } from './registry-simulator/simulator.ts';
export {
  MemorySimStore,
  type SimMember,
  type SimOps,
  type SimStore,
  type SimStored,
} from './registry-simulator/store.ts';
export { vehicleKey } from './registry-simulator/validation.ts';
