/**
 * What every view shares: the application layout with its navigation, and the notice a view shows when the
 * coordinator cannot answer (views report an unreachable coordinator in place instead of failing).
 */
package io.busload.dashboard.base.ui;
