/**
 * Printers: the only place results (SI records) become text. One small interface, one class per format,
 * golden-file tested (nvbench and JMH: measuring emits records, printers format them).
 */
package io.busload.agent.report;
