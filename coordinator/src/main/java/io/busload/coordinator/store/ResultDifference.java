package io.busload.coordinator.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whether two results under one id are the same measurement: a sender that lost its ack sends the same record again
 * (stored once, acked again), while the same id with anything else, measuredAt included, is another measurement that
 * the store refuses to take as the first.
 */
public final class ResultDifference {
  private ResultDifference() {}

  /**
   * Null when {@code a} and {@code b} hold the same fields, else which differ ({@code "measuredAt differs"}).
   * Numbers compare by value: a JSON file reads {@code stride=4} as an int, its CSV as a long.
   */
  public static String between(KernelResult a, KernelResult b) {
    JsonNode x = JsonCodec.MAPPER.valueToTree(a);
    JsonNode y = JsonCodec.MAPPER.valueToTree(b);
    Set<String> names = new TreeSet<>();
    x.fieldNames().forEachRemaining(names::add);
    y.fieldNames().forEachRemaining(names::add);
    List<String> differ = new ArrayList<>();
    for (String name : names) {
      JsonNode p = x.get(name);
      JsonNode q = y.get(name);
      if (p == null || q == null ? p != q : !p.equals(BY_VALUE, q)) {
        differ.add(name);
      }
    }
    return differ.isEmpty() ? null : String.join(", ", differ) + (differ.size() == 1 ? " differs" : " differ");
  }

  private static final Comparator<JsonNode> BY_VALUE = (x, y) -> {
    if (x.isNumber() && y.isNumber()) {
      return x.isIntegralNumber() && y.isIntegralNumber() ? x.bigIntegerValue().compareTo(y.bigIntegerValue())
          : Double.compare(x.doubleValue(), y.doubleValue());
    }
    return x.equals(y) ? 0 : 1;
  };
}
