/** The Compare view and its device picker. */
package io.busload.dashboard.compare.ui;
