/** A Float64Array that grows as values are pushed, kept whole for a window's percentiles. */
export class Samples {
  #values: Float64Array;
  #length = 0;

  constructor(initialCapacity = 1024) {
    this.#values = new Float64Array(initialCapacity);
  }

  push(value: number) {
    if (this.#length === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#length] = value;
    this.#length += 1;
  }

  clear() {
    this.#length = 0;
  }

  get length() {
    return this.#length;
  }

  view() {
    return this.#values.subarray(0, this.#length);
  }
}
