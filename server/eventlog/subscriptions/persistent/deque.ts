/** A growable ring buffer: O(1) push/pop at both ends (arrays' shift/unshift are O(n)). */
export class Deque<T> {
  private items: (T | undefined)[] = new Array(16);
  private head = 0;
  private size = 0;

  get length(): number {
    return this.size;
  }

  pushBack(item: T): void {
    if (this.size === this.items.length) this.grow();
    this.items[(this.head + this.size) % this.items.length] = item;
    this.size++;
  }

  pushFront(item: T): void {
    if (this.size === this.items.length) this.grow();
    this.head = (this.head - 1 + this.items.length) % this.items.length;
    this.items[this.head] = item;
    this.size++;
  }

  popFront(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.items.length;
    this.size--;
    return item;
  }

  peekFront(): T | undefined {
    return this.size === 0 ? undefined : this.items[this.head];
  }

  clear(): void {
    this.items = new Array(16);
    this.head = 0;
    this.size = 0;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.size; i++) yield this.items[(this.head + i) % this.items.length] as T;
  }

  private grow(): void {
    const next: (T | undefined)[] = new Array(this.items.length * 2);
    for (let i = 0; i < this.size; i++) next[i] = this.items[(this.head + i) % this.items.length];
    this.items = next;
    this.head = 0;
  }
}

/**
 * Event numbers not yet fully processed, added in increasing order and removed in any order.
 * `lowest()` is amortised O(1): removed numbers are skipped lazily at the front.
 */
export class PendingNumbers {
  private readonly live = new Map<number, number>();
  private readonly order = new Deque<number>();

  add(n: number): void {
    const count = this.live.get(n);
    if (count === undefined) {
      this.live.set(n, 1);
      this.order.pushBack(n);
    } else this.live.set(n, count + 1);
  }

  remove(n: number): void {
    const count = this.live.get(n);
    if (count === undefined) return;
    if (count <= 1) this.live.delete(n);
    else this.live.set(n, count - 1);
  }

  lowest(): number | undefined {
    for (;;) {
      const front = this.order.peekFront();
      if (front === undefined) return undefined;
      if (this.live.has(front)) return front;
      this.order.popFront();
    }
  }

  get size(): number {
    return this.live.size;
  }
}
