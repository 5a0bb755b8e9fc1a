/**
 * The Java side of the {@code ./busload} launcher: what is logic rather than finding Java and dispatching lives here,
 * where it is typed and tested. {@link io.busload.launcher.Up} supervises a local fleet (coordinator, agent and
 * dashboard from the bundle); {@link io.busload.launcher.TestReport} says what a test run skipped and why, and how
 * long it took. The bundle carries this module's jar as {@code launcher.jar}.
 */
package io.busload.launcher;
