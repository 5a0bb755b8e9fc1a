/** The Settings view: notification targets and the delivery log. */
package io.busload.dashboard.settings.ui;
