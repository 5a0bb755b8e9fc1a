package io.busload.coordinator;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's layers, checked on its compiled classes: Main and the verticle (this package) over the REST API,
 * over fleet, schedule, analysis, push and notify (side by side, none using another), over the store; logging below
 * them all.
 * No arrow points back up, so a store or a resource can change without reading what sits above it.
 */
class LayeringTest {
  private static final JavaClasses MAIN = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.busload.coordinator");

  @Test
  void layers_dependOnlyDownward() {
    layeredArchitecture().consideringOnlyDependenciesInLayers()
        .ensureAllClassesAreContainedInArchitecture()
        .layer("Main").definedBy("io.busload.coordinator")
        .layer("Api").definedBy("io.busload.coordinator.api..")
        .layer("Push").definedBy("io.busload.coordinator.push..")
        .layer("Notify").definedBy("io.busload.coordinator.notify..")
        .layer("Fleet").definedBy("io.busload.coordinator.fleet..")
        .layer("Schedule").definedBy("io.busload.coordinator.schedule..")
        .layer("Analysis").definedBy("io.busload.coordinator.analysis..")
        .layer("Store").definedBy("io.busload.coordinator.store..")
        .layer("Logging").definedBy("io.busload.coordinator.logging..")
        .whereLayer("Main").mayNotBeAccessedByAnyLayer()
        .whereLayer("Api").mayOnlyBeAccessedByLayers("Main")
        .whereLayer("Push").mayOnlyBeAccessedByLayers("Main", "Api")
        .whereLayer("Notify").mayOnlyBeAccessedByLayers("Main", "Api")
        .whereLayer("Fleet").mayOnlyBeAccessedByLayers("Main", "Api", "Push")
        .whereLayer("Schedule").mayOnlyBeAccessedByLayers("Main", "Api")
        .whereLayer("Analysis").mayOnlyBeAccessedByLayers("Main", "Api")
        .whereLayer("Store").mayOnlyAccessLayers("Logging")
        .whereLayer("Logging").mayNotAccessAnyLayer()
        .check(MAIN);
  }
}
