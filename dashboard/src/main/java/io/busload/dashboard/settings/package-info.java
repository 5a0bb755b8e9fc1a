/** Settings: where the fleet's notices go and what became of each, read from the coordinator with its token. */
package io.busload.dashboard.settings;
