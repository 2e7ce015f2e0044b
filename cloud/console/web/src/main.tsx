import './styles/base.css';
import { render } from 'preact';
import { App } from './app.tsx';
import { restoreSession } from './session.ts';

render(<App />, document.getElementById('app')!);
void restoreSession();
