import { v7 } from 'uuid';

/** UUIDv7: time-ordered, so ids sort by creation and index well in both databases. */
export const newId = (): string => v7();

export type IdGenerator = () => string;
