package io.busload.coordinator.api;

import static io.busload.coordinator.api.Replies.json;
import static io.busload.coordinator.api.Requests.bodyBytes;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.notify.EventKind;
import io.busload.coordinator.notify.Severity;
import io.busload.coordinator.notify.TargetKind;
import io.busload.coordinator.notify.TargetRefused;
import io.busload.coordinator.store.NotificationStore;
import io.busload.coordinator.store.NotificationStore.Filter;
import io.busload.coordinator.store.NotificationStore.Settings;
import io.busload.coordinator.store.NotificationStore.Target;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * {@code /api/notifications}: the targets notices go to, the delivery log, and the settings all coordinators share.
 * Every route here, reads included, needs an API token (the admin scope, {@link ApiAuth#required}): a target's settings name
 * mailboxes and relays, and its log shows what the fleet told whom. Secrets are taken in and answered as
 * {@code "set"}, never with their values.
 */
public record NotificationResource(Vertx vertx, NotificationStore store, Clock clock) implements ApiResource {
  static final String SECRET_SHOWN = "set";
  private static final long LONGEST_QUIET = Duration.ofDays(7).toSeconds();

  /** A target as the API shows it: its secrets by name only. */
  record TargetView(UUID id, String name, String kind, Map<String, String> settings, Map<String, String> secrets,
      Filter filter, String quiet, String createdBy, Instant createdAt) {
    static TargetView of(Target t) {
      Map<String, String> secrets = new TreeMap<>();
      t.secrets().keySet().forEach(k -> secrets.put(k, SECRET_SHOWN));
      return new TargetView(t.id(), t.name(), t.kind(), new TreeMap<>(t.settings()), secrets, t.filter(),
          Duration.ofSeconds(t.quietSeconds()).toString(), t.createdBy(), t.createdAt());
    }
  }

  /** The shared settings as the API shows them. */
  record SettingsView(String dashboardUrl, String agentOfflineAfter, String firstRetry, int attempts) {
    static SettingsView of(Settings s) {
      return new SettingsView(s.dashboardUrl(), Duration.ofSeconds(s.agentOfflineSeconds()).toString(),
          Duration.ofMillis(s.firstRetryMillis()).toString(), s.maxAttempts());
    }
  }

  @Override
  public void mount(Mounts api) {
    Router routes = api.at("/api/notifications");
    routes.get("/targets").handler(this::list);
    routes.post("/targets").handler(Requests.body()).handler(this::create);
    routes.get("/targets/:id").handler(this::one);
    routes.delete("/targets/:id").handler(this::delete);
    routes.get("/deliveries").handler(this::deliveries);
    routes.get("/settings").handler(ctx -> blocking(store::settings)
        .onSuccess(s -> json(ctx.response(), 200, SettingsView.of(s))).onFailure(ctx::fail));
    routes.put("/settings").handler(Requests.body()).handler(this::saveSettings);
  }

  private void list(RoutingContext ctx) {
    blocking(store::targets).onSuccess(all -> json(ctx.response(), 200, all.stream().map(TargetView::of).toList()))
        .onFailure(ctx::fail);
  }

  private void one(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    UUID uuid = uuid(id);
    blocking(() -> store.target(uuid).map(TargetView::of)).onSuccess(found -> Replies.found(ctx, found,
        "notification target", id)).onFailure(ctx::fail);
  }

  private void delete(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    UUID uuid = uuid(id);
    blocking(() -> store.deleteTarget(uuid)).onSuccess(deleted -> Replies.deleted(ctx, deleted, "notification target", id)).onFailure(ctx::fail);
  }

  private void deliveries(RoutingContext ctx) {
    String target = Requests.param(ctx, "target");
    UUID targetId = target == null ? null : uuid(target);
    int limit = Requests.limit(ctx);
    blocking(() -> store.deliveries(targetId, limit)).onSuccess(rows -> json(ctx.response(), 200, rows))
        .onFailure(ctx::fail);
  }

  private void create(RoutingContext ctx) {
    Target target;
    try {
      target = parse(bodyBytes(ctx), ctx.<ApiTokens.Caller>get(ApiAuth.CALLER).name(), clock.instant());
    } catch (TargetRefused e) {
      ctx.fail(new BadInput(e.field(), e.getMessage()));
      return;
    }
    blocking(() -> {
      if (store.nameTaken(target.name())) {
        throw new BadInput("name", "a notification target named '" + target.name() + "' exists; delete it first");
      }
      store.insertTarget(target);
      return target;
    }).onSuccess(t -> {
      ctx.response().putHeader(HttpHeaders.LOCATION, "/api/notifications/targets/" + t.id());
      json(ctx.response(), 201, TargetView.of(t));
    }).onFailure(ctx::fail);
  }

  /** A {@code POST /api/notifications/targets} body, checked whole before anything is stored. */
  static Target parse(byte[] body, String createdBy, Instant now) {
    JsonNode root = NewSweep.readBody(body);
    JsonNode name = root.get("name");
    if (name == null || !name.isTextual() || name.asText().isBlank() || name.asText().length() > 200
        || name.asText().chars().anyMatch(Character::isISOControl)) {
      throw new TargetRefused("name", "missing; a non-empty name of at most 200 characters, no control characters");
    }
    JsonNode kindNode = root.get("kind");
    TargetKind kind = TargetKind.parse(kindNode == null || !kindNode.isTextual() ? null : kindNode.asText());
    Map<String, String> settings = strings(root.get("settings"), "settings");
    Map<String, String> secrets = strings(root.get("secrets"), "secrets");
    Map<String, String> checked = kind.check(settings, secrets);
    Filter filter = filter(root.get("filter"));
    long quiet = Duration.ofHours(1).toSeconds();
    JsonNode quietNode = root.get("quiet");
    if (quietNode != null && !quietNode.isNull()) {
      quiet = duration(quietNode, "quiet", 0, LONGEST_QUIET * 1000) / 1000;
    }
    return new Target(UUID.randomUUID(), name.asText().strip(), kind.wireName(), checked, secrets, filter, quiet,
        createdBy == null ? "unknown" : createdBy, now);
  }

  private static Map<String, String> strings(JsonNode node, String field) {
    Map<String, String> out = new LinkedHashMap<>();
    if (node == null || node.isNull()) {
      return out;
    }
    if (!node.isObject()) {
      throw new TargetRefused(field, "must be an object of strings");
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getValue().isTextual() && !e.getValue().isNumber()) {
        throw new TargetRefused(field + "." + e.getKey(), "must be a string");
      }
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }

  private static Filter filter(JsonNode node) {
    if (node == null || node.isNull()) {
      return new Filter(List.of(), Severity.INFO.name(), List.of(), List.of());
    }
    if (!node.isObject()) {
      throw new TargetRefused("filter", "must be an object: events, minSeverity, labels, models");
    }
    List<String> events = new ArrayList<>();
    for (String e : list(node.get("events"), "filter.events")) {
      try {
        events.add(EventKind.valueOf(e.strip().toUpperCase(Locale.ROOT).replace('-', '_')).name());
      } catch (IllegalArgumentException ex) {
        throw new TargetRefused("filter.events", "unknown event kind '" + e + "'; known: "
            + String.join(", ", java.util.Arrays.stream(EventKind.values()).map(Enum::name).toList()));
      }
    }
    String min = Severity.INFO.name();
    JsonNode minNode = node.get("minSeverity");
    if (minNode != null && !minNode.isNull()) {
      try {
        min = Severity.valueOf(minNode.asText().strip().toUpperCase(Locale.ROOT)).name();
      } catch (IllegalArgumentException ex) {
        throw new TargetRefused("filter.minSeverity", "one of INFO, WARNING, CRITICAL");
      }
    }
    return new Filter(events, min, list(node.get("labels"), "filter.labels"), list(node.get("models"),
        "filter.models"));
  }

  private static List<String> list(JsonNode node, String field) {
    List<String> out = new ArrayList<>();
    if (node == null || node.isNull()) {
      return out;
    }
    if (!node.isArray()) {
      throw new TargetRefused(field, "must be an array of strings");
    }
    for (JsonNode v : node) {
      if (!v.isTextual() || v.asText().isBlank()) {
        throw new TargetRefused(field, "must be an array of non-empty strings");
      }
      out.add(v.asText().strip());
    }
    return out;
  }

  /** An ISO-8601 duration ({@code PT1H}) in milliseconds, within bounds. */
  private static long duration(JsonNode node, String field, long leastMillis, long mostMillis) {
    try {
      long millis = Duration.parse(node.asText().strip()).toMillis();
      if (millis < leastMillis || millis > mostMillis) {
        throw new TargetRefused(field, "out of range: " + Duration.ofMillis(leastMillis) + " to "
            + Duration.ofMillis(mostMillis));
      }
      return millis;
    } catch (DateTimeParseException e) {
      throw new TargetRefused(field, "not an ISO-8601 duration such as PT1H or PT30S");
    }
  }

  private void saveSettings(RoutingContext ctx) {
    byte[] body = bodyBytes(ctx);
    blocking(() -> {
      Settings now = store.settings();
      Settings changed;
      try {
        changed = settings(NewSweep.readBody(body), now);
      } catch (TargetRefused e) {
        throw new BadInput(e.field(), e.getMessage());
      }
      store.saveSettings(changed);
      return changed;
    }).onSuccess(s -> json(ctx.response(), 200, SettingsView.of(s))).onFailure(ctx::fail);
  }

  /** The settings with the body's fields over them; a field left out keeps its value. */
  static Settings settings(JsonNode root, Settings now) {
    String url = now.dashboardUrl();
    JsonNode urlNode = root.get("dashboardUrl");
    if (urlNode != null) {
      url = urlNode.isNull() || urlNode.asText().isBlank() ? null : urlNode.asText().strip();
      if (url != null) {
        try {
          URI uri = new URI(url);
          if (uri.getHost() == null || !List.of("http", "https").contains(String.valueOf(uri.getScheme())
              .toLowerCase(Locale.ROOT)) || uri.getQuery() != null || uri.getFragment() != null) {
            throw new URISyntaxException(url, "not absolute");
          }
        } catch (URISyntaxException e) {
          throw new TargetRefused("dashboardUrl", "not an absolute http(s) URL without query, such as"
              + " https://busload.lab.example:8080");
        }
      }
    }
    long offline = now.agentOfflineSeconds() * 1000;
    if (root.get("agentOfflineAfter") != null) {
      offline = duration(root.get("agentOfflineAfter"), "agentOfflineAfter", 60_000, Duration.ofDays(7).toMillis());
    }
    long firstRetry = now.firstRetryMillis();
    if (root.get("firstRetry") != null) {
      firstRetry = duration(root.get("firstRetry"), "firstRetry", 100, Duration.ofHours(1).toMillis());
    }
    int attempts = now.maxAttempts();
    JsonNode attemptsNode = root.get("attempts");
    if (attemptsNode != null) {
      if (!attemptsNode.canConvertToInt() || attemptsNode.asInt() < 1 || attemptsNode.asInt() > 20) {
        throw new TargetRefused("attempts", "a whole number from 1 to 20");
      }
      attempts = attemptsNode.asInt();
    }
    return new Settings(url, offline / 1000, firstRetry, attempts);
  }

  private static UUID uuid(String id) {
    try {
      return UUID.fromString(id);
    } catch (IllegalArgumentException e) {
      throw new BadInput("id", "not a target id (a UUID)");
    }
  }

  private <T> Future<T> blocking(Callable<T> work) {
    return vertx.executeBlocking(work, false);
  }
}
