/** Devices side by side per kernel family: naive, coalesced and best, absolute and against each device's ceilings. */
package io.busload.dashboard.compare;
