import type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from '@fedify/fedify';

/** A Fedify queue in front of another: everything passes through; subclasses step into `listen`. */
export class DelegatingQueue implements MessageQueue {
  readonly nativeRetrial: boolean;
  protected readonly inner: MessageQueue;

  constructor(inner: MessageQueue) {
    this.inner = inner;
    this.nativeRetrial = inner.nativeRetrial ?? false;
  }

  enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    return this.inner.enqueue(message, options);
  }

  enqueueMany(messages: readonly unknown[], options?: MessageQueueEnqueueOptions): Promise<void> {
    if (this.inner.enqueueMany) return this.inner.enqueueMany(messages, options);
    return Promise.all(messages.map((m) => this.inner.enqueue(m, options))).then(() => undefined);
  }

  getDepth(): Promise<MessageQueueDepth> {
    if (!this.inner.getDepth) throw new TypeError('the queue does not count its messages');
    return this.inner.getDepth();
  }

  listen(handler: (message: unknown) => Promise<void> | void, options?: MessageQueueListenOptions): Promise<void> {
    return this.inner.listen(handler, options);
  }
}
