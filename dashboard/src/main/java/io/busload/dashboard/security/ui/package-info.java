/** The login page. */
package io.busload.dashboard.security.ui;
