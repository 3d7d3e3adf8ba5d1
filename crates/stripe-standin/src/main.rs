//! `stripe-standin [--listen ADDR] [--webhook-url URL] [--webhook-secret SECRET]`:
//! the stand-in as a process, for the browser tests. Also read from
//! STANDIN_LISTEN, STANDIN_WEBHOOK_URL and STANDIN_WEBHOOK_SECRET.

fn arg(name: &str, env: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
        .or_else(|| std::env::var(env).ok())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let listen = arg("--listen", "STANDIN_LISTEN").unwrap_or_else(|| "127.0.0.1:12111".into());
    let secret = arg("--webhook-secret", "STANDIN_WEBHOOK_SECRET").ok_or_else(|| {
        anyhow::anyhow!("--webhook-secret (or STANDIN_WEBHOOK_SECRET) is required")
    })?;
    let webhook = arg("--webhook-url", "STANDIN_WEBHOOK_URL");
    let standin = stripe_standin::StandIn::start_on(&listen, &secret, webhook).await?;
    println!("stripe-standin listening on {}", standin.base_url);
    tokio::signal::ctrl_c().await.ok();
    Ok(())
}
