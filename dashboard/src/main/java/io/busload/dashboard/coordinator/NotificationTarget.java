package io.busload.dashboard.coordinator;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A notification target as {@code GET /api/notifications/targets} shows it: its secrets by name only (the coordinator
 * answers {@code "set"}, never a value).
 */
public record NotificationTarget(String id, String name, String kind, Map<String, String> settings,
    Map<String, String> secrets, Filter filter, String quiet, String createdBy, Instant createdAt) {

  public NotificationTarget {
    settings = settings == null ? Map.of() : Map.copyOf(settings);
    secrets = secrets == null ? Map.of() : Map.copyOf(secrets);
  }

  /** What the target hears; an empty list is every value. */
  public record Filter(List<String> events, String minSeverity, List<String> labels, List<String> models) {
    public Filter {
      events = events == null ? List.of() : List.copyOf(events);
      labels = labels == null ? List.of() : List.copyOf(labels);
      models = models == null ? List.of() : List.copyOf(models);
    }
  }
}
