package io.busload.dashboard;

import com.vaadin.flow.component.page.AppShellConfigurator;
import com.vaadin.flow.component.page.Push;
import com.vaadin.flow.server.AppShellSettings;
import com.vaadin.flow.theme.lumo.Lumo;
import com.vaadin.flow.component.dependency.StyleSheet;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The dashboard process: Spring Boot serves the Vaadin views, a lite cluster member listens to live results.
 *
 * <p>Push is on because results arrive from the event bus, not from a browser request.
 */
@SpringBootApplication
@Push
@StyleSheet(Lumo.STYLESHEET)
public class Application implements AppShellConfigurator {

  public static void main(String[] args) {
    SpringApplication.run(Application.class, args);
  }

  @Override
  public void configurePage(AppShellSettings settings) {
    settings.setPageTitle("Busload");
  }
}
