package io.busload.dashboard.echarts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.vaadin.flow.component.AttachEvent;
import com.vaadin.flow.component.Component;
import com.vaadin.flow.component.HasSize;
import com.vaadin.flow.component.Tag;
import com.vaadin.flow.component.dependency.JsModule;
import com.vaadin.flow.component.dependency.NpmPackage;
import java.util.Iterator;

/**
 * An ECharts chart driven from Java by its option object (https://echarts.apache.org/en/option.html).
 *
 * <p>The server keeps the option it last sent, with every appended point folded in, so a chart that is detached
 * and attached again (navigation, a reloaded tab re-using the view) is redrawn from that state, not left blank.
 * Points can be appended one at a time so a live chart sends a few bytes per result instead of its whole option.
 */
@Tag("busload-echart")
@NpmPackage(value = "echarts", version = "6.1.0")
@JsModule("./echarts/busload-echart.ts")
public class ECharts extends Component implements HasSize {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ObjectNode option = JSON.createObjectNode();

  public ECharts() {
    setWidthFull();
    setHeight("480px");
  }

  /** Replaces the whole option; series are matched by {@code id} when points are appended later. */
  public void setOption(ObjectNode option) {
    this.option = option.deepCopy();
    send();
  }

  /** A copy of the option as the server knows it, appended points included. */
  public ObjectNode option() {
    return option.deepCopy();
  }

  /**
   * Adds the point {@code [x, y]} to the series with this {@code id}, keeping the series ordered by x and
   * replacing a point already at x (a re-measured stride replaces the old figure rather than zigzagging).
   *
   * @throws IllegalArgumentException when no series has this id: a new series needs its name and style, so it
   *     comes through {@link #setOption}
   */
  public void appendPoint(String seriesId, double x, double y) {
    ArrayNode data = seriesData(seriesId);
    int at = 0;
    while (at < data.size() && data.get(at).get(0).asDouble() < x) {
      at++;
    }
    if (at < data.size() && data.get(at).get(0).asDouble() == x) {
      data.remove(at);
    }
    data.insert(at, JSON.createArrayNode().add(x).add(y));
    getElement().callJsFunction("appendPoint", seriesId, x, y);
  }

  public boolean hasSeries(String seriesId) {
    return findSeries(seriesId) != null;
  }

  private ArrayNode seriesData(String seriesId) {
    ObjectNode series = findSeries(seriesId);
    if (series == null) {
      throw new IllegalArgumentException("no series with id '" + seriesId + "'; add it with setOption first");
    }
    JsonNode data = series.get("data");
    if (data instanceof ArrayNode array) {
      return array;
    }
    return series.putArray("data");
  }

  private ObjectNode findSeries(String seriesId) {
    JsonNode all = option.get("series");
    if (all == null) {
      return null;
    }
    for (Iterator<JsonNode> it = all.elements(); it.hasNext(); ) {
      JsonNode series = it.next();
      if (series instanceof ObjectNode object && seriesId.equals(object.path("id").asText(null))) {
        return object;
      }
    }
    return null;
  }

  @Override
  protected void onAttach(AttachEvent attachEvent) {
    super.onAttach(attachEvent);
    if (!attachEvent.isInitialAttach()) {
      send();
    }
  }

  private void send() {
    getElement().callJsFunction("setOption", option.toString());
  }
}
