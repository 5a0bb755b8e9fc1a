/**
 * Sick-GPU detection: devices of the same model and driver form a cohort, and a device whose figure for
 * a kernel lies outside the band of its peers' figures is flagged, in a sentence that says by how much, against
 * how many peers, and whether its clocks explain it.
 */
package io.busload.analysis.cohort;
