package io.busload.coordinator.notify;

import io.busload.analysis.cohort.CohortFlag;
import io.busload.analysis.health.HealthReason;
import io.busload.analysis.health.HealthState;
import io.busload.coordinator.store.AgentStore;
import io.busload.coordinator.store.HealthStore;
import io.busload.coordinator.store.KnownAgent;
import io.busload.coordinator.store.NotificationStore;
import io.busload.coordinator.store.NotificationStore.Due;
import io.busload.coordinator.store.NotificationStore.Event;
import io.busload.coordinator.store.NotificationStore.Settings;
import io.busload.coordinator.store.NotificationStore.Target;
import io.busload.coordinator.store.Run;
import io.busload.coordinator.store.RunState;
import io.busload.coordinator.store.StoredDevice;
import io.busload.coordinator.store.Sweep;
import io.busload.coordinator.store.SweepStore;
import io.busload.coordinator.store.VerdictStore;
import io.busload.coordinator.store.VerdictStore.Point;
import io.busload.coordinator.store.VerdictStore.StoredChangePoint;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.JsonCodec;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns what the coordinator finds into events, claims each in the store by its stable key, and sends the queued
 * deliveries. All store and network work runs on worker threads; the event loop only starts it. The scans (failed
 * sweeps, offline agents) run on the leader; sending runs on every coordinator, each taking leased rows, so a
 * delivery queued by a leader that died is sent by the next.
 */
public final class Notifier {
  private static final Logger LOG = LoggerFactory.getLogger(Notifier.class);
  /** How often the leader looks for failed sweeps and agents gone quiet. */
  static final Duration SCAN_EVERY = Duration.ofSeconds(10);
  /** How often the leader runs the cohort check: it reads every device's newest figures, and flags move slowly. */
  static final Duration COHORT_EVERY = Duration.ofMinutes(10);
  /**
   * How long taken deliveries are left to their sender before another may take them: longer than a whole batch at
   * its slowest (each attempt at most about 45 s of connect, read and write timeouts), so none is sent twice.
   */
  static final Duration LEASE = Duration.ofMinutes(5);
  /** A failed sweep is told of while it is this young; older ones were a matter for the History view. */
  static final Duration SWEEP_AGE = Duration.ofDays(2);
  static final Duration LONGEST_RETRY = Duration.ofHours(1);
  private static final int BATCH = 5;
  private static final int KEY_CHARS = 400;
  /** A change of at least this fraction for the worse is CRITICAL; smaller ones are WARNING. */
  static final double CRITICAL_FRACTION = 0.10;

  private final Vertx vertx;
  private final NotificationStore store;
  private final VerdictStore verdicts;
  private final AgentStore agents;
  private final SweepStore sweeps;
  private final Clock clock;
  private final Supplier<CohortState> cohort;
  private final Sending sending = new Sending();
  private boolean delivering;
  private boolean scanning;
  private Instant lastScan = Instant.EPOCH;
  private Instant lastCohortScan = Instant.EPOCH;

  /**
   * @param cohort the cohort check as it stands (blocking: it reads the store), asked every {@link #COHORT_EVERY} by
   *     the leader
   */
  public Notifier(Vertx vertx, NotificationStore store, VerdictStore verdicts, AgentStore agents, SweepStore sweeps,
      Supplier<CohortState> cohort, Clock clock) {
    this.vertx = vertx;
    this.cohort = cohort;
    this.store = store;
    this.verdicts = verdicts;
    this.agents = agents;
    this.sweeps = sweeps;
    this.clock = clock;
  }

  /** Change points just recorded: one event each, claimed and queued on a worker; completes with the deliveries. */
  public Future<Integer> changePoints(List<StoredChangePoint> found) {
    return queue(found, "change point(s)", settings -> {
      Map<String, StoredDevice> devices = devices();
      return c -> changePoint(c, devices.get(c.deviceId()), settings);
    });
  }

  /**
   * One notice per item, made and claimed on a worker, with the notification settings read once: {@code notices}
   * takes them and answers how an item becomes its notice. Completes with the deliveries; a failure is logged naming
   * how many {@code what} ("health change(s)") were not queued.
   */
  private <T> Future<Integer> queue(List<T> items, String what, Function<Settings, Function<T, Notice>> notices) {
    if (items.isEmpty()) {
      return Future.succeededFuture(0);
    }
    return vertx.<Integer>executeBlocking(() -> {
      Function<T, Notice> notice = notices.apply(store.settings());
      return claim(items.stream().map(notice).toList());
    }, false).onFailure(e -> LOG.error("cannot queue notices of {} {}", items.size(), what, e));
  }

  /**
   * A certificate of the fleet near its expiry, as the coordinator knows it.
   *
   * @param role the fleet role it is issued for, or {@code CA}
   * @param serial its serial number in hex, so that a renewed certificate of the same subject is another notice
   */
  public record Certificate(String role, String subject, String serial, Instant notAfter) {}

  /**
   * Certificates within the warning's days of expiry: one event per certificate and expiry (its key carries the
   * serial and the expiry), claimed on a worker, so telling again, from any coordinator, queues nothing new.
   * Completes with the deliveries queued.
   */
  public Future<Integer> certificatesNearExpiry(List<Certificate> near) {
    return queue(near, "certificate(s) near expiry", settings -> {
      Instant now = clock.instant();
      return c -> certificateNotice(c, settings, now);
    });
  }

  /**
   * Health verdicts just stored: one notice for each whose state changed, keyed on the device and the moment the
   * new state began, so a verdict judged again in the same state is never told twice. Completes with the deliveries.
   */
  public Future<Integer> healthChanges(List<HealthStore.Stored> stored) {
    List<HealthStore.Stored> changed = stored.stream().filter(HealthStore.Stored::changed).toList();
    return queue(changed, "health change(s)", settings -> {
      Map<String, StoredDevice> devices = devices();
      return s -> health(s, devices.get(s.now().deviceId()), settings);
    });
  }

  private Notice health(HealthStore.Stored s, StoredDevice device, Settings settings) {
    HealthStore.DeviceHealth h = s.now();
    boolean recovered = h.state() == HealthState.HEALTHY;
    EventKind kind = recovered ? EventKind.DEVICE_HEALTH_RECOVERED : EventKind.DEVICE_HEALTH_CHANGED;
    Severity severity = recovered ? Severity.INFO : h.state() == HealthState.FAILED ? Severity.CRITICAL
        : Severity.WARNING;
    String was = s.before() == null ? "not judged" : s.before().name();
    String title = h.deviceId() + " (" + h.model() + ") health " + h.state() + (s.before() == null ? ""
        : ", was " + was);
    String message = "The health of " + h.deviceId() + " (" + h.model() + ") is " + h.state() + " (was " + was
        + "), judged on run " + h.runId() + " at " + h.judgedAt()
        + (h.reasons().isEmpty() ? ": nothing read points at the hardware."
            : ": " + String.join("; ", h.reasons().stream().map(HealthReason::sentence).toList()) + ".")
        + (h.notRead().isEmpty() ? "" : " Not read: " + String.join(", ", h.notRead()) + ".");
    String base = Messages.base(settings.dashboardUrl());
    String link = base == null ? null : base + "/fleet";
    var details = new NoticeDetails.Health(h.deviceId(), h.model(), h.state().name(),
        s.before() == null ? null : s.before().name(), h.reasons(), h.notRead(), h.runId(), h.resultId().toString(),
        h.since().toString());
    String key = "health/" + h.deviceId() + "/" + h.since().toEpochMilli();
    // Quiet per state: a recovery is told even within the quiet period after the failure, while a device flapping
    // into the same bad state again within it is not told twice.
    Event event = new Event(key, key("health", h.deviceId(), h.state().name()), kind.name(), severity.name(), title,
        message, link, json(details), h.since());
    return new Notice(event, kind, severity, Set.of(h.model()), labels(device));
  }

  /** Called every second on the event loop: starts a scan (leader only) and a round of sending, each on a worker. */
  public void tick(boolean leading) {
    Instant now = clock.instant();
    if (leading && !scanning && !now.isBefore(lastScan.plus(SCAN_EVERY))) {
      scanning = true;
      lastScan = now;
      vertx.executeBlocking(this::scan, false).onComplete(done -> {
        scanning = false;
        if (done.failed()) {
          LOG.warn("notification scan failed: {}", done.cause().getMessage());
        }
      });
    }
    if (!delivering) {
      delivering = true;
      vertx.executeBlocking(this::deliverDue, false).onComplete(done -> {
        delivering = false;
        if (done.failed()) {
          LOG.warn("notification delivery round failed: {}", done.cause().getMessage());
        }
      });
    }
  }

  // ---- events

  private Notice changePoint(StoredChangePoint c, StoredDevice device, Settings settings) {
    List<Point> after = verdicts.series(c.deviceId(), c.kernel(), c.params(), c.measuredAt(),
        c.measuredAt().plusNanos(1000), 1);
    List<Point> before = verdicts.series(c.deviceId(), c.kernel(), c.params(), null, c.measuredAt(), 1);
    Point first = after.isEmpty() ? null : after.getFirst();
    Point last = before.isEmpty() ? null : before.getFirst();
    boolean worse = c.changeFraction() < 0;
    Severity severity = !worse ? Severity.INFO
        : Math.abs(c.changeFraction()) >= CRITICAL_FRACTION ? Severity.CRITICAL : Severity.WARNING;
    String where = c.kernel() + (c.params().isEmpty() ? "" : " [" + c.params() + "]");
    String title = (worse ? "Slower: " : "Faster: ") + c.kernel() + " " + Messages.percent(c.changeFraction())
        + " on " + c.deviceId() + " (" + c.model() + ")";
    String driver = first == null ? "driver unknown" : "driver " + first.driverVersion();
    String driverBefore = last == null || first == null || last.driverVersion() == null
        || last.driverVersion().equals(first.driverVersion()) ? "the same driver as before"
        : "driver " + last.driverVersion() + " before the change";
    String message = "Bandwidth of " + where + " on " + c.deviceId() + " (" + c.model() + ") "
        + (worse ? "fell" : "rose") + " from " + Messages.bandwidth(c.beforeMedian()) + " to "
        + Messages.bandwidth(c.afterMedian()) + " (" + Messages.percent(c.changeFraction()) + "), a lasting level"
        + " shift from the result measured at " + c.measuredAt() + " on. Measured under "
        + Messages.clocks(first == null ? null : first.clocks()) + ", " + driver + " (" + driverBefore + ").";
    String base = Messages.base(settings.dashboardUrl());
    String link = base == null ? null : base + "/history?kernel=" + Messages.query(c.kernel()) + "&params="
        + Messages.query(c.params());
    var details = new NoticeDetails.ChangePoint(c.deviceId(), c.model(), c.kernel(), c.params(), c.kind(),
        c.beforeMedian(), c.afterMedian(), c.changeFraction(), c.firstResultId().toString(), c.measuredAt().toString(),
        first == null ? null : first.driverVersion(), last == null ? null : last.driverVersion(),
        first == null ? null : first.clocks());
    String series = key("change-point", c.deviceId(), c.kernel(), c.params());
    Event event = new Event(series + "/" + c.firstResultId(), series, EventKind.CHANGE_POINT.name(), severity.name(),
        title, message, link, json(details), c.detectedAt());
    return new Notice(event, EventKind.CHANGE_POINT, severity, Set.of(c.model()), labels(device));
  }

  private Notice sweepFailed(Sweep sweep, Map<String, StoredDevice> devices, Settings settings, Instant now) {
    List<Run> failed = sweep.runs().stream().filter(r -> r.state() != RunState.DONE).toList();
    String runs = failed.stream().map(r -> r.deviceId() + " " + r.state()
        + (r.message() == null || r.message().isBlank() ? "" : " (" + r.message().strip() + ")"))
        .collect(Collectors.joining("; "));
    String title = "Sweep " + sweep.id() + " (" + sweep.suite() + ") finished incomplete: " + failed.size() + " of "
        + sweep.runs().size() + " run(s) did not succeed";
    String message = "Sweep " + sweep.id() + " of suite " + sweep.suite() + " measured " + sweep.completed() + " of "
        + sweep.total() + " kernel case(s). Runs that did not succeed: " + runs + ".";
    String base = Messages.base(settings.dashboardUrl());
    String link = base == null || failed.isEmpty() ? null : base + "/runs/" + Messages.query(failed.getFirst().runId());
    var details = new NoticeDetails.SweepFailed(sweep.id(), sweep.suite(), sweep.completed(), sweep.total(),
        failed.stream().map(r -> Map.of("run", r.runId(), "device", r.deviceId(), "state", r.state().name())).toList());
    Set<String> models = failed.stream().map(r -> devices.get(r.deviceId())).filter(d -> d != null)
        .map(StoredDevice::model).collect(Collectors.toSet());
    Set<String> labels = failed.stream().map(r -> devices.get(r.deviceId())).flatMap(d -> labels(d).stream())
        .collect(Collectors.toSet());
    String key = key("sweep-failed", sweep.id());
    return new Notice(new Event(key, key, EventKind.SWEEP_FAILED.name(), Severity.WARNING.name(), title, message, link,
        json(details), now), EventKind.SWEEP_FAILED, Severity.WARNING, models, labels);
  }

  private Notice agentOffline(KnownAgent agent, Map<String, StoredDevice> devices, Settings settings, Duration gone) {
    String title = "Agent " + agent.agentId() + " on " + agent.host() + " offline for " + minutes(gone);
    String message = "Agent " + agent.agentId() + " on host " + agent.host() + " has not been heard from since "
        + agent.lastSeen() + "; its device(s) " + agent.devices().stream().map(d -> d.id() + " (" + d.name() + ")")
        .collect(Collectors.joining(", ")) + " run nothing until it is back.";
    return agentNotice(agent, devices, settings, EventKind.AGENT_OFFLINE, Severity.WARNING, title, message,
        agent.lastSeen().plus(Duration.ofSeconds(settings.agentOfflineSeconds())), agent.lastSeen());
  }

  private Notice agentBack(KnownAgent agent, Instant wentAt, Map<String, StoredDevice> devices, Settings settings) {
    String title = "Agent " + agent.agentId() + " on " + agent.host() + " is back";
    String message = "Agent " + agent.agentId() + " on host " + agent.host() + ", silent since " + wentAt
        + ", was heard from again at " + agent.lastSeen() + "; its device(s) " + agent.devices().stream()
        .map(DeviceInfo::id).collect(Collectors.joining(", ")) + " take runs again.";
    return agentNotice(agent, devices, settings, EventKind.DEVICE_RECOVERED, Severity.INFO, title, message,
        agent.lastSeen(), wentAt);
  }

  private Notice agentNotice(KnownAgent agent, Map<String, StoredDevice> devices, Settings settings, EventKind kind,
      Severity severity, String title, String message, Instant at, Instant wentAt) {
    String base = Messages.base(settings.dashboardUrl());
    String link = base == null ? null : base + "/fleet";
    var details = new NoticeDetails.Agent(agent.agentId(), agent.host(), agent.lastSeen().toString(),
        agent.devices().stream().map(DeviceInfo::id).toList());
    String prefix = kind == EventKind.AGENT_OFFLINE ? OFFLINE : BACK;
    String key = prefix + agent.agentId() + "/" + wentAt.toEpochMilli();
    Set<String> labels = agent.devices().stream().map(d -> devices.get(d.id())).flatMap(d -> labels(d).stream())
        .collect(Collectors.toSet());
    return new Notice(new Event(key, key("agent", agent.agentId()), kind.name(), severity.name(), title, message, link,
        json(details), at), kind, severity, agent.devices().stream().map(DeviceInfo::name).collect(Collectors.toSet()),
        labels);
  }

  private Notice certificateNotice(Certificate c, Settings settings, Instant now) {
    long days = Duration.between(now, c.notAfter()).toDays();
    boolean expired = !c.notAfter().isAfter(now);
    String title = "Certificate " + c.subject() + " (" + c.role() + ") " + (expired ? "expired at " + c.notAfter()
        : "expires in " + days + " day(s)");
    String message = "The " + c.role() + " certificate " + c.subject() + " (serial " + c.serial() + ") "
        + (expired ? "expired" : "expires") + " at " + c.notAfter() + (expired ? "" : ", " + days + " day(s) from now")
        + "; members that use it cannot connect after that. Renew with ./busload certs renew and copy the member"
        + " directories to their hosts: coordinators and bridge agents take the new files without a restart.";
    String base = Messages.base(settings.dashboardUrl());
    var details = new NoticeDetails.Certificate(c.role(), c.subject(), c.serial(), c.notAfter().toString(), days);
    Severity severity = days < 7 ? Severity.CRITICAL : Severity.WARNING;
    String key = key(CERTIFICATE, c.subject(), c.serial(), Long.toString(c.notAfter().getEpochSecond()));
    Event event = new Event(key, key("certificate", c.subject()), EventKind.CERTIFICATE_EXPIRY.name(), severity.name(),
        title, message, base == null ? null : base + "/fleet", json(details), now);
    return new Notice(event, EventKind.CERTIFICATE_EXPIRY, severity, Set.of(), Set.of());
  }

  private static final String CERTIFICATE = "certificate-expiry";
  private static final String OFFLINE = "agent-offline/";
  private static final String BACK = "agent-back/";

  /** Failed sweeps, agents offline longer than the setting, and agents back after an offline notice. */
  private Integer scan() {
    Instant now = clock.instant();
    Settings settings = store.settings();
    Map<String, StoredDevice> devices = devices();
    List<Notice> notices = new ArrayList<>();
    for (Sweep sweep : sweeps.sweeps(200)) {
      if (sweep.state() == Sweep.State.FAILED && sweep.createdAt().isAfter(now.minus(SWEEP_AGE))) {
        notices.add(sweepFailed(sweep, devices, settings, now));
      }
    }
    Duration offlineAfter = Duration.ofSeconds(settings.agentOfflineSeconds());
    Map<String, KnownAgent> known = agents.agents().stream().filter(a -> a.lastSeen() != null)
        .collect(Collectors.toMap(KnownAgent::agentId, Function.identity(), (a, b) -> a));
    for (KnownAgent agent : known.values()) {
      Duration gone = Duration.between(agent.lastSeen(), now);
      if (gone.compareTo(offlineAfter) > 0) {
        notices.add(agentOffline(agent, devices, settings, gone));
      }
    }
    for (Event offline : store.unanswered(EventKind.AGENT_OFFLINE.name(), OFFLINE, BACK,
        now.minus(Duration.ofDays(30)))) {
      String rest = offline.key().substring(OFFLINE.length());
      int slash = rest.lastIndexOf('/');
      KnownAgent agent = known.get(rest.substring(0, slash));
      Instant wentAt = Instant.ofEpochMilli(Long.parseLong(rest.substring(slash + 1)));
      if (agent != null && agent.lastSeen().isAfter(wentAt)
          && Duration.between(agent.lastSeen(), now).compareTo(offlineAfter) <= 0) {
        notices.add(agentBack(agent, wentAt, devices, settings));
      }
    }
    if (!now.isBefore(lastCohortScan.plus(COHORT_EVERY))) {
      lastCohortScan = now;
      cohortNotices(cohort.get(), devices, settings, now, notices);
    }
    return claim(notices);
  }

  private static final String FLAGGED = "cohort-flag/";
  private static final String CLEARED = "cohort-clear/";

  /**
   * One notice when a device and kernel case is first flagged (its key carries when, so a later episode is a new
   * one), and one when a flagged device is measured within its cohort again.
   */
  private void cohortNotices(CohortState state, Map<String, StoredDevice> devices, Settings settings, Instant now,
      List<Notice> notices) {
    Map<String, Event> open = new LinkedHashMap<>();
    for (Event e : store.unanswered(EventKind.COHORT_FLAG.name(), FLAGGED, CLEARED, now.minus(Duration.ofDays(365)))) {
      open.put(e.key().substring(0, e.key().lastIndexOf('/')), e);
    }
    java.util.Set<String> flagged = new java.util.HashSet<>();
    String base = Messages.base(settings.dashboardUrl());
    for (CohortFlag f : state.flags()) {
      String series = FLAGGED + key(f.deviceId(), f.series());
      flagged.add(series);
      if (open.containsKey(series)) {
        continue;
      }
      String title = f.deviceId() + " (" + f.deviceName() + ") outside its cohort on " + f.series() + ": "
          + Messages.percent(f.relative());
      String message = f.sentence() + " Its figure " + Messages.bandwidth(f.value()) + " against a peer median of "
          + Messages.bandwidth(f.peerMedian()) + " (band " + Messages.percent(f.band()).replace("+", "±") + "), driver "
          + f.driver() + (f.sameClocks() == null ? "" : Boolean.TRUE.equals(f.sameClocks())
          ? ", at the same clocks as its peers." : ", at clocks unlike its peers'.");
      var details = new NoticeDetails.CohortFlag(f.deviceId(), f.deviceName(), f.driver(), f.series(), f.kernel(),
          f.value(), f.peerMedian(), f.relative(), f.band(), f.peers(), f.sameClocks());
      Event event = new Event(series + "/" + now.toEpochMilli(), "cohort/" + key(f.deviceId(), f.series()),
          EventKind.COHORT_FLAG.name(), Severity.WARNING.name(), title, message, compareLink(base, f.deviceId(),
          f.deviceName()), json(details), now);
      notices.add(new Notice(event, EventKind.COHORT_FLAG, Severity.WARNING, Set.of(f.deviceName()),
          labels(devices.get(f.deviceId()))));
    }
    for (Map.Entry<String, Event> e : open.entrySet()) {
      Map<String, Object> was = details(e.getValue());
      String device = String.valueOf(was.get("device"));
      String series = String.valueOf(was.get("series"));
      String model = String.valueOf(was.get("model"));
      if (flagged.contains(e.getKey()) || !state.measured().contains(CohortState.measured(device, series))) {
        continue;
      }
      String title = device + " (" + model + ") back within its cohort on " + series;
      String message = device + " (" + model + "), flagged on " + series + " since " + e.getValue().occurredAt()
          + ", is measured within the band of its peers again.";
      Event event = new Event(CLEARED + e.getValue().key().substring(FLAGGED.length()), e.getValue().quietKey(),
          EventKind.DEVICE_RECOVERED.name(), Severity.INFO.name(), title, message, compareLink(base, device, model),
          json(was), now);
      notices.add(new Notice(event, EventKind.DEVICE_RECOVERED, Severity.INFO, Set.of(model),
          labels(devices.get(device))));
    }
  }

  /** Compare with the device beside its model: the view that shows how far it stands from its cohort. */
  private static String compareLink(String base, String deviceId, String model) {
    return base == null ? null : base + "/compare?subject=" + Messages.query("device: " + deviceId) + "&subject="
        + Messages.query("model: " + model);
  }

  private static Map<String, Object> details(Event e) {
    try {
      return JsonCodec.MAPPER.readValue(e.detailsJson(), new com.fasterxml.jackson.core.type.TypeReference<>() {});
    } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
      throw new IllegalStateException("notification details are not JSON: " + e.key(), ex);
    }
  }

  /** Claims each notice's event for the targets that want it; returns how many deliveries were queued. */
  private int claim(List<Notice> notices) {
    if (notices.isEmpty()) {
      return 0;
    }
    List<Target> targets = store.targets();
    Instant now = clock.instant();
    int queued = 0;
    for (Notice n : notices) {
      List<Target> wanting = targets.stream().filter(n::wanted).toList();
      if (wanting.isEmpty()) {
        continue;
      }
      int q = store.claim(n.event(), wanting, now);
      if (q > 0) {
        LOG.info("notice {} ({}) queued for {} target(s)", n.event().key(), n.kind(), q);
      }
      queued += q;
    }
    return queued;
  }

  // ---- sending

  /** Sends what is due; each attempt is recorded before the next is taken. Returns how many were attempted. */
  private Integer deliverDue() {
    Instant now = clock.instant();
    List<Due> due = store.takeDue(now, now.plus(LEASE), BATCH);
    if (due.isEmpty()) {
      return 0;
    }
    Settings settings = store.settings();
    for (Due d : due) {
      Sending.Outcome outcome = sending.send(d.target(), d.event(), clock.instant());
      int attempts = d.attempts() + 1;
      Instant at = clock.instant();
      if (outcome.sent()) {
        store.recordAttempt(d.deliveryId(), attempts, "SENT", at, outcome.code(), outcome.reply(), null, at);
        LOG.info("notice {} sent to target '{}' (attempt {}, reply {})", d.event().key(), d.target().name(), attempts,
            outcome.code());
      } else if (attempts >= settings.maxAttempts()) {
        store.recordAttempt(d.deliveryId(), attempts, "FAILED", at, outcome.code(), outcome.reply(), outcome.error(),
            at);
        LOG.warn("notice {} to target '{}' failed for good after {} attempt(s): {}", d.event().key(),
            d.target().name(), attempts, outcome.error());
      } else {
        Instant next = at.plus(backoff(settings.firstRetryMillis(), attempts));
        store.recordAttempt(d.deliveryId(), attempts, "PENDING", next, outcome.code(), outcome.reply(),
            outcome.error(), at);
        LOG.warn("notice {} to target '{}' failed (attempt {} of {}), next at {}: {}", d.event().key(),
            d.target().name(), attempts, settings.maxAttempts(), next, outcome.error());
      }
    }
    return due.size();
  }

  /** The wait after attempt {@code attempts}: the first retry's, doubled each time, at most an hour. */
  static Duration backoff(long firstRetryMillis, int attempts) {
    long millis = firstRetryMillis << Math.min(attempts - 1, 20);
    return Duration.ofMillis(Math.min(millis, LONGEST_RETRY.toMillis()));
  }

  // ---- helpers

  private Map<String, StoredDevice> devices() {
    return agents.devices().stream().collect(Collectors.toMap(StoredDevice::id, Function.identity(),
        (a, b) -> a));
  }

  private static Set<String> labels(StoredDevice device) {
    return device == null ? Set.of() : Set.copyOf(device.labels());
  }

  private static String minutes(Duration d) {
    return d.toMinutes() >= 1 ? d.toMinutes() + " min" : d.toSeconds() + " s";
  }

  private static String json(Object value) {
    return new String(JsonCodec.toJson(value), StandardCharsets.UTF_8);
  }

  /** Parts joined by '/', the long tail (params can be long) replaced by its SHA-256 so keys fit their column. */
  static String key(String... parts) {
    String joined = String.join("/", parts);
    if (joined.length() <= KEY_CHARS) {
      return joined;
    }
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(joined.getBytes(StandardCharsets.UTF_8));
      return joined.substring(0, KEY_CHARS - 72) + "#" + HexFormat.of().formatHex(hash);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
