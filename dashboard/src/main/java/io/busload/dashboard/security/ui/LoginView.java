package io.busload.dashboard.security.ui;

import com.vaadin.flow.component.login.LoginForm;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import com.vaadin.flow.router.BeforeEnterEvent;
import com.vaadin.flow.router.BeforeEnterObserver;
import com.vaadin.flow.router.PageTitle;
import com.vaadin.flow.router.Route;
import com.vaadin.flow.server.auth.AnonymousAllowed;

/** Spring Security's form login, posted to {@code /login}; viewing needs none of it. */
@Route("login")
@PageTitle("Log in | Busload")
@AnonymousAllowed
public class LoginView extends VerticalLayout implements BeforeEnterObserver {
  private final LoginForm form = new LoginForm();

  public LoginView() {
    form.setAction("login");
    form.setForgotPasswordButtonVisible(false);
    setSizeFull();
    setAlignItems(Alignment.CENTER);
    setJustifyContentMode(JustifyContentMode.CENTER);
    add(form);
  }

  @Override
  public void beforeEnter(BeforeEnterEvent event) {
    form.setError(event.getLocation().getQueryParameters().getParameters().containsKey("error"));
  }
}
