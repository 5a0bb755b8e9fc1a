package io.busload.coordinator.notify;

import io.busload.coordinator.store.NotificationStore.Event;
import io.busload.coordinator.store.NotificationStore.Filter;
import io.busload.coordinator.store.NotificationStore.Target;
import java.util.Locale;
import java.util.Set;

/** An event with what targets filter it by: the models and host labels of the devices it is about. */
record Notice(Event event, EventKind kind, Severity severity, Set<String> models, Set<String> labels) {

  /** Whether {@code target}'s filter lets this through; a target hears only of what happened after it was made. */
  boolean wanted(Target target) {
    Filter f = target.filter();
    if (event.occurredAt().isBefore(target.createdAt())) {
      return false;
    }
    if (!f.events().isEmpty() && !f.events().contains(kind.name())) {
      return false;
    }
    if (f.minSeverity() != null && severity.compareTo(Severity.valueOf(f.minSeverity())) < 0) {
      return false;
    }
    if (!f.labels().isEmpty() && f.labels().stream().noneMatch(labels::contains)) {
      return false;
    }
    return f.models().isEmpty() || f.models().stream().anyMatch(word -> models.stream()
        .anyMatch(model -> model.toLowerCase(Locale.ROOT).contains(word.toLowerCase(Locale.ROOT))));
  }
}
