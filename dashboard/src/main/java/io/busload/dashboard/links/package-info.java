/**
 * The links of a host: its GPU x GPU matrix of peer bandwidths as heatmaps and its host-to-device
 * curves against the PCIe link's theoretical rate, built from the interconnect suite's results for Run detail and
 * Compare. Options only; the views draw them.
 */
package io.busload.dashboard.links;
