// One log channel for everything the extension does. Callers pass node ids, keys and
// outcomes, never URLs or passwords; the recent lines stay readable for tests.
import * as vscode from 'vscode';

const KEEP = 500;

export class Log implements vscode.Disposable {
  private readonly channel: vscode.LogOutputChannel;
  private readonly recent: string[] = [];

  constructor(name: string) {
    this.channel = vscode.window.createOutputChannel(name, { log: true });
  }

  private keep(level: string, message: string): void {
    this.recent.push(`${level} ${message}`);
    if (this.recent.length > KEEP) this.recent.splice(0, this.recent.length - KEEP);
  }

  info(message: string): void {
    this.keep('info', message);
    this.channel.info(message);
  }

  warn(message: string): void {
    this.keep('warn', message);
    this.channel.warn(message);
  }

  error(message: string): void {
    this.keep('error', message);
    this.channel.error(message);
  }

  debug(message: string): void {
    this.keep('debug', message);
    this.channel.debug(message);
  }

  lines(): string[] {
    return [...this.recent];
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }
}
