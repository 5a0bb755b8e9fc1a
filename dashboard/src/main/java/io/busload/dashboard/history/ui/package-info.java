/** The History view. */
package io.busload.dashboard.history.ui;
