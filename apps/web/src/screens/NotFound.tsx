import { Link } from 'react-router';

export function NotFound() {
  return (
    <section className="screen">
      <h1>Nothing here</h1>
      <p>
        This address opens no screen of Quire. <Link to="/">Go to your organizations</Link>.
      </p>
    </section>
  );
}
