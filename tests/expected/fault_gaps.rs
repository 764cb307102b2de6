// Expected differences between a fault's rule list and what the suite flags (see
// tests/fault_table.rs). Every entry says why; faults not listed must match exactly.
const EXPECTED: &[Expected] = &[];
