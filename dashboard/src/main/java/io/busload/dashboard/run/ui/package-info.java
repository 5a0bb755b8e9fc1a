/** The run detail view. */
package io.busload.dashboard.run.ui;
