import { Component, type ComponentChildren } from 'preact';

/** A page that throws while rendering shows a message (never the stack) instead of a blank panel. */
export class PageBoundary extends Component<{ children: ComponentChildren }, { failed: boolean }> {
  override state = { failed: false };
  override componentDidCatch() {
    this.setState({ failed: true });
  }
  override render() {
    if (!this.state.failed) return this.props.children;
    return <p class="error" role="alert">This page could not be shown. Reload the page; if it happens again, the panel and the server may be out of step.</p>;
  }
}
