/**
 * Checks over the whole source tree that no single module's tests can make: that code and docs say what holds now
 * (no issue numbers, no citations of files outside the repository) and that the map of modules in
 * docs/design/overview.md and README.md names every module the build has. They live in test-support's own tests
 * because test-support depends on almost nothing, so {@code ./busload test} runs them early and cheaply; the
 * repository root is found from the module's working directory.
 */
package io.busload.testsupport.tree;
