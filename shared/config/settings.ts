/**
 * A process's settings as a table: each environment variable's name, type, default, bounds and
 * meaning, read by the process's config loader and by the configuration reference
 * (`npm run docs`), so the two cannot disagree. An empty variable counts as unset (the default).
 * What a table cannot say (a file that must exist, two variables that go together) the loader
 * checks itself after reading.
 */

interface Described {
  name: string;
  /** One line for the reference: what the setting does, in the reader's terms. */
  description: string;
}

export interface NumberSetting extends Described {
  type: 'integer' | 'number';
  /** undefined: the setting is off unless set. */
  default: number | undefined;
  min: number;
  max: number;
  /** The reference's wording for a default that depends on something else. */
  defaultText?: string;
}

export interface FlagSetting extends Described {
  type: 'flag';
  default: boolean;
}

export interface EnumSetting extends Described {
  type: 'enum';
  values: readonly string[];
  default: string;
}

/** Free text the loader checks itself (a URL, a path, a host); `format` tells the reader what fits. */
export interface TextSetting extends Described {
  type: 'text';
  default: string | undefined;
  format: string;
  /** The reference's wording for a default that is not a fixed value (a path in the package, a derived value). */
  defaultText?: string;
  /** It may carry credentials: a loader masks them (or the whole value) in its error messages. */
  secret?: boolean;
}

export type Setting = NumberSetting | FlagSetting | EnumSetting | TextSetting;

/** A table's rows, keyed by how the loader names them. */
export type Settings = Record<string, Setting>;

/** A titled table for the reference: one process's settings or one part of them. */
export interface SettingsSection {
  title: string;
  /** A paragraph under the title: who reads these and when. */
  intro: string;
  settings: Settings;
}

type ValueOf<S extends Setting> = S extends NumberSetting
  ? S['default'] extends number
    ? number
    : number | undefined
  : S extends FlagSetting
    ? boolean
    : S extends EnumSetting
      ? S['values'][number]
      : S extends TextSetting
        ? S['default'] extends string
          ? string
          : string | undefined
        : never;

type Env = Readonly<Record<string, string | undefined>>;

const unset = (raw: string | undefined): raw is undefined | '' => raw === undefined || raw === '';

const FLAG_VALUES = ['true', 'false', '1', '0'];

function parse(setting: Setting, raw: string): unknown {
  const { name } = setting;
  switch (setting.type) {
    case 'integer':
    case 'number': {
      const value = Number(raw);
      const whole = setting.type === 'integer';
      if (Number.isFinite(value) && (!whole || Number.isInteger(value)))
        if (value >= setting.min && value <= setting.max) return value;
      const kind = whole ? 'a whole number' : 'a number';
      return new Error(`${name} must be ${kind} from ${setting.min} to ${setting.max}, got "${raw}"`);
    }
    case 'flag':
      if (FLAG_VALUES.includes(raw)) return raw === 'true' || raw === '1';
      return new Error(`${name} must be one of ${FLAG_VALUES.join(', ')}, got "${raw}"`);
    case 'enum':
      if (setting.values.includes(raw)) return raw;
      return new Error(`${name} must be one of ${setting.values.join(', ')}, got "${raw}"`);
    case 'text':
      return raw;
  }
}

/**
 * A reader for one process: its loader's error type carries the message (`<NAME> must be …, got
 * "<value>"`), which stops start-up.
 */
export function settingsReader(toError: (message: string) => Error) {
  return function read<S extends Setting>(env: Env, setting: S): ValueOf<S> {
    const raw = env[setting.name];
    if (unset(raw)) return setting.default as ValueOf<S>;
    const value = parse(setting, raw);
    if (value instanceof Error) throw toError(value.message);
    return value as ValueOf<S>;
  };
}

/** The variable names of tables, in order, without repeats: what a process reads. */
export const settingNames = (...tables: Settings[]) => [
  ...new Set(tables.flatMap((table) => Object.values(table).map((setting) => setting.name))),
];
