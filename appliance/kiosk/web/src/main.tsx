// The shared styles first, so each screen's own come after them and may refine them.
import './styles/base.css';
import './styles/shell.css';
import { render } from 'preact';
import { App } from './app.tsx';
import { restoreSession } from './session.ts';

void restoreSession().finally(() => render(<App />, document.getElementById('app')!));
