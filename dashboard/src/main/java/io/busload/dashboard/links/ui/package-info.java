/** The panel Run detail and Compare add to show a host's links: one heatmap per pair kernel, one curve chart. */
package io.busload.dashboard.links.ui;
