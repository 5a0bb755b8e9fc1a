/**
 * Verdicts on measurements, apart from everything that moves or stores them: change points in one
 * series, an A/B verdict on two sets of raw samples, a device against the other devices of its model.
 *
 * <p>Plain Java on plain records (no Vert.x, no database, no protocol types), so that the coordinator's regression
 * check, its REST comparison, the {@code busload compare} gate and the evaluation on a labelled corpus all run the
 * same code, and each can be tested with numbers alone.
 */
package io.busload.analysis;
