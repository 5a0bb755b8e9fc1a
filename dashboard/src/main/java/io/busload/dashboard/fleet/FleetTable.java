package io.busload.dashboard.fleet;

import io.busload.dashboard.fleet.FleetRows.Activity;
import io.busload.dashboard.fleet.FleetRows.Row;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The Fleet view's rows at one moment (8,000 devices), filtered, grouped and counted here so that the view
 * hands its grid one page at a time. Immutable: the view builds a new one each refresh and asks its grid to fetch
 * again, so a page a user scrolls to is always cut from one snapshot.
 */
public final class FleetTable {
  /** What the view groups devices by; a device with several labels is in each of their groups. */
  public enum GroupBy {
    NONE(row -> List.of()),
    MODEL(row -> List.of(row.deviceName())),
    LABEL(row -> row.labels().isEmpty() ? List.of(NO_LABEL) : row.labels()),
    HOST(row -> List.of(row.host()));

    private final Function<Row, List<String>> keys;

    GroupBy(Function<Row, List<String>> keys) {
      this.keys = keys;
    }

    public String label() {
      return name().charAt(0) + name().substring(1).toLowerCase(Locale.ROOT);
    }
  }

  /** The group that holds hosts without labels. */
  public static final String NO_LABEL = "(no label)";

  /**
   * Which rows to show: {@code text} found in host, agent, device, name, fingerprint or a label (case ignored;
   * blank: all), one {@code activity} (null: all), and within {@code groupBy} the group {@code group} (null: all).
   */
  public record Filter(String text, Activity activity, GroupBy groupBy, String group) {
    public static final Filter ALL = new Filter("", null, GroupBy.NONE, null);

    public Filter {
      text = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
      groupBy = groupBy == null ? GroupBy.NONE : groupBy;
    }

    public Filter withGroup(String chosen) {
      return new Filter(text, activity, groupBy, chosen);
    }
  }

  /** How many devices are busy, idle and offline: of a group, or of the rows a filter keeps. */
  public record Counts(int devices, int busy, int idle, int offline) {
    static Counts of(List<Row> rows) {
      int busy = 0;
      int idle = 0;
      int offline = 0;
      for (Row row : rows) {
        switch (row.activity()) {
          case BUSY -> busy++;
          case IDLE -> idle++;
          case OFFLINE -> offline++;
        }
      }
      return new Counts(rows.size(), busy, idle, offline);
    }
  }

  /** One group of {@link GroupBy}: its key (a model, a label, a host) and its devices' counts. */
  public record Group(String key, Counts counts) {}

  private final List<Row> rows;
  /** Each row's searchable text, lower case, made once: a page fetch filters 8,000 rows. */
  private final List<String> texts;

  /** Sorted by host, agent, device: the order the grid pages through. */
  public FleetTable(List<Row> rows) {
    this.rows = rows.stream().sorted(Comparator.comparing(Row::host).thenComparing(Row::agentId)
        .thenComparing(Row::deviceId)).toList();
    this.texts = this.rows.stream().map(FleetTable::text).toList();
  }

  /** {@code limit} matching rows from {@code offset}: one page of the grid's lazy fetch. */
  public List<Row> page(Filter filter, int offset, int limit) {
    return matching(filter).skip(offset).limit(limit).toList();
  }

  public int count(Filter filter) {
    return (int) matching(filter).count();
  }

  /** Counts of every row the filter keeps, its group included. */
  public Counts counts(Filter filter) {
    return Counts.of(matching(filter).toList());
  }

  /** Counts of the whole fleet. */
  public Counts counts() {
    return Counts.of(rows);
  }

  public long hosts() {
    return rows.stream().map(Row::host).distinct().count();
  }

  /** The groups of {@code filter.groupBy()} among the rows the text and activity keep (any group), by key. */
  public List<Group> groups(Filter filter) {
    if (filter.groupBy() == GroupBy.NONE) {
      return List.of();
    }
    Map<String, List<Row>> byKey = new TreeMap<>();
    matching(filter.withGroup(null)).forEach(row -> filter.groupBy().keys.apply(row)
        .forEach(key -> byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(row)));
    return byKey.entrySet().stream().map(e -> new Group(e.getKey(), Counts.of(e.getValue()))).toList();
  }

  private Stream<Row> matching(Filter filter) {
    return IntStream.range(0, rows.size()).filter(i -> {
      Row row = rows.get(i);
      return (filter.activity() == null || row.activity() == filter.activity())
          && (filter.text().isEmpty() || texts.get(i).contains(filter.text()))
          && (filter.group() == null || filter.groupBy().keys.apply(row).contains(filter.group()));
    }).mapToObj(rows::get);
  }

  private static String text(Row row) {
    return String.join("\n", row.host(), row.agentId(), row.deviceId(), row.deviceName(), row.fingerprint(),
        String.join("\n", row.labels())).toLowerCase(Locale.ROOT);
  }
}
